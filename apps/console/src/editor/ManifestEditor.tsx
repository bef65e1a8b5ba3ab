import { autocompletion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { json } from '@codemirror/lang-json';
import { yaml } from '@codemirror/lang-yaml';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { Compartment, EditorState, StateEffect, StateField, type Extension, type Range } from '@codemirror/state';
import { Decoration, EditorView, WidgetType, keymap, lineNumbers, type DecorationSet } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { useEffect, useRef } from 'react';
import { locatePath, parentPathAt, syntaxError } from './locate';
import { fieldsAt } from './manifest-fields';

/** A validator problem: a `$.path` inside the edited text (or `$[i]…` for the i-th manifest of a list). */
export interface EditorProblem {
  path: string;
  message: string;
}

export interface ManifestEditorProps {
  /** The editor's accessible name (its textbox and its region). */
  label: string;
  value: string;
  onChange: (text: string) => void;
  /** 'auto': JSON when the text starts with `{` or `[`, else YAML. */
  language?: 'json' | 'yaml' | 'auto';
  problems?: readonly EditorProblem[];
  invalid?: boolean;
  describedBy?: string;
}

/** A problem placed in the text: the line it is shown under and what it says. */
export interface PlacedProblem {
  from: number;
  to: number;
  line: number;
  text: string;
}

/** Where each problem goes: the line of its path (the first line when the path is not in the text), and the syntax error at its position. */
export function placeProblems(text: string, problems: readonly EditorProblem[]): PlacedProblem[] {
  const lines = text.split('\n');
  const lineEnd = (line: number) => lines.slice(0, line).reduce((n, l) => n + l.length + 1, 0) - 1;
  const out: PlacedProblem[] = [];
  const syntax = syntaxError(text);
  if (syntax && text.trim()) {
    const { line, column, offset } = syntax.position;
    out.push({ from: offset, to: Math.max(offset, lineEnd(line)), line, text: `line ${line}, column ${column}: ${syntax.message}` });
  }
  for (const p of problems) {
    const at = syntax ? undefined : locatePath(text, p.path);
    const line = at?.line ?? 1;
    out.push({ from: at?.offset ?? 0, to: Math.max(at?.offset ?? 0, lineEnd(line)), line, text: `${p.path} ${p.message}` });
  }
  return out;
}

class ProblemWidget extends WidgetType {
  constructor(readonly text: string) {
    super();
  }
  override eq(other: ProblemWidget): boolean {
    return other.text === this.text;
  }
  toDOM(): HTMLElement {
    const el = document.createElement('div');
    el.className = 'cm-problem';
    el.setAttribute('role', 'note');
    el.textContent = this.text;
    return el;
  }
}

const setProblems = StateEffect.define<PlacedProblem[]>();

/** Each problem as a block under its line; positions follow edits until the next check replaces them. */
const problemField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(value, tr) {
    let next = value.map(tr.changes);
    for (const effect of tr.effects) {
      if (!effect.is(setProblems)) continue;
      const ranges: Range<Decoration>[] = effect.value
        .filter((p) => p.line <= tr.state.doc.lines)
        .map((p) => Decoration.widget({ widget: new ProblemWidget(p.text), block: true, side: 1 }).range(tr.state.doc.line(p.line).to));
      next = Decoration.set(ranges, true);
    }
    return next;
  },
  provide: (f) => EditorView.decorations.from(f),
});

function completeFields(isJson: () => boolean) {
  return (context: CompletionContext): CompletionResult | null => {
    const word = context.matchBefore(/"?[\w-]*/);
    if (!word || (word.from === word.to && !context.explicit)) return null;
    const fields = fieldsAt(parentPathAt(context.state.doc.toString(), context.pos));
    if (fields.length === 0) return null;
    const asJson = isJson();
    return {
      from: word.from,
      options: fields.map((f) => ({ label: asJson ? `"${f}"` : f, apply: asJson ? `"${f}": ` : `${f}: `, type: 'property' })),
      validFor: /^"?[\w-]*$/,
    };
  };
}

const isJsonText = (text: string, language: ManifestEditorProps['language']) =>
  language === 'json' || (language !== 'yaml' && /^\s*[[{]/.test(text));

/** CodeMirror 6 for manifests: JSON or YAML, line numbers, problems under their lines, field completion. */
export default function ManifestEditor({
  label,
  value,
  onChange,
  language = 'auto',
  problems = [],
  invalid,
  describedBy,
}: ManifestEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView>(null);
  const lang = useRef(new Compartment());
  const attrs = useRef(new Compartment());
  const latest = useRef({ onChange, language });
  latest.current = { onChange, language };

  useEffect(() => {
    const extensions: Extension[] = [
      lineNumbers(),
      history(),
      keymap.of([...defaultKeymap, ...historyKeymap]),
      lang.current.of(isJsonText(value, language) ? json() : yaml()),
      attrs.current.of([]),
      autocompletion({ override: [completeFields(() => isJsonText(view.current?.state.doc.toString() ?? '', latest.current.language))] }),
      lintGutter(),
      problemField,
      EditorView.lineWrapping,
      EditorView.updateListener.of((u) => {
        if (u.docChanged) latest.current.onChange(u.state.doc.toString());
      }),
    ];
    const v = new EditorView({ state: EditorState.create({ doc: value, extensions }), parent: host.current! });
    view.current = v;
    return () => v.destroy();
    // The view is created once; the effects below keep it in step with the props.
  }, []);

  // A new text from outside (a file, the current manifests): replace the document.
  useEffect(() => {
    const v = view.current;
    if (!v || v.state.doc.toString() === value) return;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({ effects: lang.current.reconfigure(isJsonText(value, language) ? json() : yaml()) });
  }, [value.trimStart().charAt(0), language]);

  useEffect(() => {
    // tabindex: axe counts a contenteditable as focusable only with it (scrollable-region-focusable).
    const a: Record<string, string> = { 'aria-label': label, spellcheck: 'false', tabindex: '0' };
    if (invalid) a['aria-invalid'] = 'true';
    if (describedBy) a['aria-describedby'] = describedBy;
    view.current?.dispatch({ effects: attrs.current.reconfigure(EditorView.contentAttributes.of(a)) });
  }, [label, invalid, describedBy]);

  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const text = v.state.doc.toString();
    const placed = placeProblems(text, problems);
    const diagnostics: Diagnostic[] = placed.map((p) => ({
      from: p.from,
      to: Math.min(p.to, text.length),
      severity: 'error',
      message: p.text,
    }));
    v.dispatch(setDiagnostics(v.state, diagnostics), { effects: setProblems.of(placed) });
  }, [problems, value]);

  return <div ref={host} className="manifest-editor" />;
}
