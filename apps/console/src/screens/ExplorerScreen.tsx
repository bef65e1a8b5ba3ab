import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import 'graphiql/graphiql.css';
import { useMemo } from 'react';

/** GraphiQL, bundled (no CDN), sending the console session's token. Loaded only when opened. */
export default function ExplorerScreen({ token }: { token: string }) {
  const fetcher = useMemo(() => createGraphiQLFetcher({ url: '/graphql', headers: { authorization: `Bearer ${token}` } }), [token]);
  return (
    <section aria-labelledby="explorer-title" className="explorer">
      <h1 id="explorer-title" className="explorer-title">
        GraphQL explorer
      </h1>
      <GraphiQL fetcher={fetcher} defaultQuery={'# The admin API, as you: try\n{\n  me {\n    subject\n    roles\n    teams\n  }\n}\n'} />
    </section>
  );
}
