/** Scripts of the manual flow, each with copy and download. */
import { useState } from 'preact/hooks';
import { type ApiError, rawCall } from './api';
import { ErrorBanner } from './errors';

export interface ScriptStep {
  /** What the step is, e.g. "1. initial-create". */
  title: string;
  /** Route that generates it. */
  path: string;
  /** Request body (the integration payload), if the route takes one. */
  body?: unknown;
}

function ScriptViewer({ title, script }: { title: string; script: string }) {
  const [copied, setCopied] = useState(false);
  const file = `${title
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase()}.sql`;
  return (
    <figure class="script">
      <figcaption>
        {title}
        <button
          type="button"
          onClick={async () => {
            await navigator.clipboard?.writeText(script).catch(() => undefined);
            setCopied(true);
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <a
          class="button"
          download={file}
          href={`data:application/sql;charset=utf-8,${encodeURIComponent(script)}`}
        >
          Download
        </a>
      </figcaption>
      <pre>{script}</pre>
    </figure>
  );
}

export function ScriptSteps({ steps }: { steps: ScriptStep[] }) {
  const [scripts, setScripts] = useState<Record<string, string>>({});
  const [error, setError] = useState<ApiError | null>(null);
  const load = async (step: ScriptStep) => {
    setError(null);
    const result = await rawCall(
      'POST',
      step.path,
      step.body === undefined
        ? undefined
        : { text: JSON.stringify(step.body), contentType: 'application/json' },
    );
    if (result.status === 200)
      setScripts((s) => ({ ...s, [step.title]: (result.json as { script: string }).script }));
    else setError(result.json as ApiError);
  };
  return (
    <div class="steps">
      <ErrorBanner error={error} />
      <ol>
        {steps.map((step) => (
          <li key={step.title}>
            <button type="button" onClick={() => load(step)}>
              Generate {step.title}
            </button>
            {scripts[step.title] !== undefined && (
              <ScriptViewer title={step.title} script={scripts[step.title] as string} />
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}
