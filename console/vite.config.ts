/**
 * The console's build: a Preact single-page app served under /console/ (the local gateway, or
 * CloudFront in front of S3 in AWS). `npm run console:build` writes console/dist.
 */
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [preact()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    reportCompressedSize: false,
  },
  logLevel: 'warn',
});
