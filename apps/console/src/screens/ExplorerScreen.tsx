import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import 'graphiql/graphiql.css';
import { useEffect, useMemo, useRef } from 'react';

/**
 * CodeMirror's input textareas carry no label (axe-core: critical for screen readers): name each
 * by the editor it belongs to, including the editors GraphiQL mounts later (variables, headers).
 */
function labelEditors(root: HTMLElement): void {
  for (const area of root.querySelectorAll<HTMLTextAreaElement>('textarea:not([aria-label])')) {
    const tool = area.closest('.graphiql-editor-tool');
    const label = area.closest('.graphiql-query-editor')
      ? 'GraphQL query'
      : area.closest('.graphiql-response')
        ? 'Response'
        : tool
          ? [...tool.querySelectorAll('.graphiql-editor')].findIndex((e) => e.contains(area)) === 1
            ? 'Request headers (JSON)'
            : 'Variables (JSON)'
          : null;
    if (label) area.setAttribute('aria-label', label);
  }
}

/** GraphiQL, bundled (no CDN), sending the console session's token. Loaded only when opened. */
export default function ExplorerScreen({ token }: { token: string }) {
  const fetcher = useMemo(() => createGraphiQLFetcher({ url: '/graphql', headers: { authorization: `Bearer ${token}` } }), [token]);
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    labelEditors(root);
    const observer = new MutationObserver(() => labelEditors(root));
    observer.observe(root, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, []);
  return (
    <section ref={ref} aria-labelledby="explorer-title" className="explorer">
      <h1 id="explorer-title" className="explorer-title">
        GraphQL explorer
      </h1>
      <GraphiQL fetcher={fetcher} defaultQuery={'# The admin API, as you: try\n{\n  me {\n    subject\n    roles\n    teams\n  }\n}\n'} />
    </section>
  );
}
