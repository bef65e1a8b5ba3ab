import { lazy, Suspense } from 'react';
import type { ManifestEditorProps } from './ManifestEditor';

// CodeMirror is loaded with the first screen that edits a manifest, not with the console (ADR 0306).
const ManifestEditor = lazy(() => import('./ManifestEditor'));

/** The manifest editor, code-split: a status line until its chunk has loaded. */
export function LazyManifestEditor(props: ManifestEditorProps) {
  return (
    <Suspense
      fallback={
        <p role="status" className="editor-loading">
          Loading the editor…
        </p>
      }
    >
      <ManifestEditor {...props} />
    </Suspense>
  );
}
