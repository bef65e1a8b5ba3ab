import {
  execute,
  getNamedType,
  getOperationAST,
  GraphQLError,
  isInputObjectType,
  printSchema,
  typeFromAST,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { ApolloServerOptionsWithGateway } from '@apollo/server';

type Gateway = ApolloServerOptionsWithGateway<never>['gateway'];
type GatewayExecutor = NonNullable<Awaited<ReturnType<Gateway['load']>>['executor']>;
type GatewayRequest = Parameters<GatewayExecutor>[0];

/** Per operation of a document: runs so far, then the compiled query (null: not compilable, graphql-js keeps it). */
type Entry = { runs: number; compiled?: CompiledQuery | null };

/**
 * Executes operations of documents Apollo has parsed and validated. A document's operation runs
 * through graphql-js until its `compileAfter`-th run (GRAPHQL_JIT_AFTER), then through a graphql-jit
 * compilation of it, kept while Apollo keeps the `DocumentNode` (its document store caches one
 * per query text; a `WeakMap` lets the compilation die with it). A one-off document therefore
 * never pays for a compilation, and a hostile caller sending new documents gets graphql-js.
 *
 * Only execution changes: parsing, validation (depth, shape, token limits), the complexity limit
 * (a plugin's didResolveOperation, which also coerces the variables first), the context (auth,
 * loaders), every field resolver with its Nest guard, and Apollo's error formatting all stay as
 * they are. The compiled query calls the same resolver functions with the same context and
 * builds errors with the thrown error as `originalError`, which is all the error formatter reads
 * (compiled-executor.spec.ts holds results and formatted errors equal to graphql-js's).
 */
export class CompiledExecutor {
  private schema?: GraphQLSchema;
  private readonly documents = new WeakMap<DocumentNode, Map<string, Entry>>();

  /** Operations executed each way since start (tests read them to know which path ran). */
  readonly runs = { compiled: 0, interpreted: 0 };

  constructor(private readonly compileAfter: number) {}

  /** Nest's `transformSchema` step that hands the final schema (after every other transform) to the executor. */
  readonly captureSchema = (schema: GraphQLSchema): GraphQLSchema => {
    this.schema = schema;
    return schema;
  };

  /**
   * Apollo Server 5 replaces its execution only through the gateway interface: `load` gives the
   * schema (the one Nest built; Apollo validates against it as before) and the executor.
   */
  gateway(): Gateway {
    let listener: Parameters<Gateway['onSchemaLoadOrUpdate']>[0] | undefined;
    return {
      onSchemaLoadOrUpdate: (callback) => {
        listener = callback;
        return () => (listener = undefined);
      },
      load: () => {
        const schema = this.schema;
        if (!schema) throw new Error('CompiledExecutor: no schema captured (captureSchema must be the last transformSchema step)');
        listener?.({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
        return Promise.resolve({ schema, executor: (request: GatewayRequest) => this.execute(request) });
      },
      stop: () => Promise.resolve(),
    };
  }

  execute(request: Pick<GatewayRequest, 'document' | 'context' | 'request'>): Promise<ExecutionResult> {
    const schema = this.schema!;
    const { document, context } = request;
    // The caller's operationName, as Apollo gives graphql-js (null/undefined: the document's only operation).
    const { operationName, variables = {} } = request.request;
    const compiled = this.compiledFor(schema, document, operationName ?? undefined);
    if (compiled) {
      this.runs.compiled++;
      return Promise.resolve(compiled.query(undefined, context, variables)).then(withGraphQLJsErrors);
    }
    this.runs.interpreted++;
    return Promise.resolve(execute({ schema, document, contextValue: context, variableValues: variables, operationName }));
  }

  private compiledFor(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): CompiledQuery | undefined {
    let operations = this.documents.get(document);
    if (!operations) this.documents.set(document, (operations = new Map<string, Entry>()));
    const key = operationName ?? '';
    let entry = operations.get(key);
    if (!entry) operations.set(key, (entry = { runs: 0 }));
    if (entry.compiled !== undefined) return entry.compiled ?? undefined;
    if (++entry.runs < this.compileAfter) return undefined;
    if (!compilable(schema, document, operationName)) {
      entry.compiled = null;
      return undefined;
    }
    // Compiling costs more than one interpreted run; Apollo has already validated the document.
    const result = compileQuery(schema, document, operationName, { disablingCapturingStackErrors: false });
    entry.compiled = isCompiledQuery(result) ? result : null;
    return entry.compiled ?? undefined;
  }
}

/**
 * Queries whose variables are scalars or enums (or lists of them). graphql-jit coerces variables
 * itself and does not apply an input object field's default value (`dryRun: Boolean! = false`
 * given as a variable was refused as "not provided"), so an operation with an input-object
 * variable, and every mutation (their inputs are objects), stays on graphql-js. Input objects
 * written in the document (`filter: {agentId: $agentId}`) are coerced as graphql-js does.
 */
function compilable(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): boolean {
  const operation = getOperationAST(document, operationName);
  if (operation?.operation !== 'query') return false;
  return (operation.variableDefinitions ?? []).every((variable) => {
    const type = typeFromAST(schema, variable.type);
    return type !== undefined && !isInputObjectType(getNamedType(type));
  });
}

/**
 * graphql-jit's errors pass `instanceof GraphQLError` but are not graphql-js's: `extensions` is
 * undefined unless the thrown error had some, and Apollo's formatting reads `extensions.code`
 * (it answered "Internal server error" instead of the guard's UNAUTHENTICATED). Each becomes a
 * graphql-js GraphQLError as `locatedError` would build it: same message, path, locations,
 * originalError, and extensions taken from the original error or empty.
 */
function withGraphQLJsErrors(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  const errors = result.errors.map((error) => {
    const original = error.originalError ?? undefined;
    const rebuilt = new GraphQLError(error.message, { path: error.path, originalError: original });
    // graphql-js derives locations from the field nodes; the compiled query computed the same ones.
    (rebuilt as { locations?: GraphQLError['locations'] }).locations = error.locations;
    return rebuilt;
  });
  return { ...result, errors };
}
