import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { loadSettings } from './session';
import './styles.css';

const root = createRoot(document.getElementById('root')!);
loadSettings().then(
  (settings) =>
    root.render(
      <StrictMode>
        <App settings={settings} />
      </StrictMode>,
    ),
  (error: unknown) =>
    root.render(
      <main>
        <p role="alert">The console could not load its settings: {error instanceof Error ? error.message : String(error)}</p>
      </main>,
    ),
);
