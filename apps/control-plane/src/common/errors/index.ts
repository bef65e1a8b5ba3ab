export { ApiErrorCode } from './api-error-code';
export { DomainError } from './domain-error';
export { CommonError, CommonErrorCode, InputValidationError, notFound } from './common.errors';
export { validateInput, jsonPathOf } from './validate-input';
export { createErrorFormatter, mapKnownError, type ErrorLogger } from './error-formatter';
