import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import 'graphiql/graphiql.css';
import { useEffect, useMemo, useRef } from 'react';
import { useTitle } from '../url';

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

/** Sets an attribute only when it differs (the observer that calls this also sees its own changes). */
function set(el: Element, name: string, value: string | null): void {
  if (el.getAttribute(name) === value) return;
  if (value === null) el.removeAttribute(name);
  else el.setAttribute(name, value);
}

/**
 * GraphiQL 4's markup, made accessible without changing what it does (axe-core, serious):
 * - each operation tab is an element of role "tab" holding two buttons (select, close): a control
 *   inside a control (`nested-interactive`). The tab strip becomes a toolbar of plain buttons: the
 *   select button says whether it is the active operation (aria-pressed), the close button is its
 *   sibling, and the list items are presentational.
 * - CodeMirror 5 scrolls each editor in a div whose only focusable element (its hidden textarea)
 *   sits outside it, so a keyboard user cannot scroll a long query or response
 *   (`scrollable-region-focusable`): the scrolling div joins the tab order, named by its editor.
 */
function fixGraphiql(root: HTMLElement): void {
  for (const strip of root.querySelectorAll('.graphiql-tabs')) {
    set(strip, 'role', 'toolbar');
    set(strip, 'aria-label', 'Operations');
  }
  for (const tab of root.querySelectorAll('.graphiql-tab')) {
    const active = tab.getAttribute('aria-selected');
    if (active !== null) tab.setAttribute('data-active', active);
    set(tab, 'role', 'none');
    set(tab, 'aria-selected', null);
    const select = tab.querySelector('.graphiql-tab-button');
    if (select) set(select, 'aria-pressed', tab.getAttribute('data-active') === 'true' ? 'true' : 'false');
  }
  for (const scroll of root.querySelectorAll('.CodeMirror-scroll')) {
    const label = scroll.closest('.CodeMirror')?.querySelector('textarea[aria-label]')?.getAttribute('aria-label');
    if (!label) continue;
    set(scroll, 'tabindex', '0');
    set(scroll, 'role', 'region');
    set(scroll, 'aria-label', `${label} (scroll)`);
  }
}

/** GraphiQL, bundled (no CDN), sending the console session's token. Loaded only when opened. */
export default function ExplorerScreen({ token }: { token: string }) {
  const fetcher = useMemo(() => createGraphiQLFetcher({ url: '/graphql', headers: { authorization: `Bearer ${token}` } }), [token]);
  const ref = useRef<HTMLElement>(null);
  useTitle('GraphQL explorer');
  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    const fix = () => {
      labelEditors(root);
      fixGraphiql(root);
    };
    fix();
    const observer = new MutationObserver(fix);
    // Attributes too: GraphiQL sets aria-selected again when the active tab changes.
    observer.observe(root, { childList: true, subtree: true, attributes: true, attributeFilter: ['aria-selected', 'role'] });
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
