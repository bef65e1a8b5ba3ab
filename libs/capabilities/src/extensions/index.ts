export { negotiateExtensions, parseExtensionsHeader, extensionsResponseHeader, EXTENSIONS_HEADER } from './negotiate';
export type { NegotiationResult } from './negotiate';
