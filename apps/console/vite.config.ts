import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** Built into the repository's dist/console, which the control plane serves under /console (docs/console.md). */
export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    chunkSizeWarningLimit: 4000,
  },
  server: {
    // `npm run dev -w cp-console`: the control plane (npm start) answers the API and the settings.
    proxy: {
      '/graphql': 'http://127.0.0.1:3000',
      '/console/config.json': 'http://127.0.0.1:3000',
      '/console/dev-sign-in': 'http://127.0.0.1:3000',
    },
  },
});
