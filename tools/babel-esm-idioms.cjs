// Jest on Node 20 cannot load the ESM-only NestJS 12 packages (and jose): babel turns
// them into CommonJS. This plugin rewrites the two ESM-only idioms some of them use:
// `import.meta` and `const require = createRequire(import.meta.url)`.
module.exports = function esmIdioms({ types: t }) {
  return {
    visitor: {
      MetaProperty(path) {
        if (path.node.meta.name !== 'import' || path.node.property.name !== 'meta') return;
        path.replaceWithSourceString(
          "({ url: require('url').pathToFileURL(__filename).href, dirname: __dirname, filename: __filename, resolve: (s) => require.resolve(s) })",
        );
      },
      VariableDeclarator(path) {
        if (t.isIdentifier(path.node.id, { name: 'require' })) path.parentPath.remove();
      },
    },
  };
};
