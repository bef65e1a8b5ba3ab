import type { CodegenConfig } from '@graphql-codegen/cli';

/** Types for every operation in src/ from the control plane's committed schema (offline: a local file). */
const config: CodegenConfig = {
  schema: '../control-plane/schema.graphql',
  documents: ['src/**/*.ts', 'src/**/*.tsx', '!src/gql/**'],
  ignoreNoDocuments: false,
  generates: {
    'src/gql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { DateTime: 'string', JSON: 'unknown' },
      },
    },
  },
};
export default config;
