import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// Component tests (src, *.test.ts and *.test.tsx) in jsdom.
export default defineConfig({
  plugins: [react()],
  test: { environment: 'jsdom', include: ['src/**/*.test.ts', 'src/**/*.test.tsx'] },
});
