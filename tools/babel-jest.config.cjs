// babel-jest options for node_modules JavaScript (see tools/babel-esm-idioms.cjs). Plugins are
// named by path: jest hands transformer options to its workers as JSON.
const path = require('node:path');
module.exports = {
  compact: false,
  plugins: [
    path.join(__dirname, 'babel-esm-idioms.cjs'),
    '@babel/plugin-transform-dynamic-import',
    ['@babel/plugin-transform-modules-commonjs', { importInterop: 'node' }],
  ],
};
