/** Scripts of the manual flow, each with copy and download. */
import { useEffect, useState } from 'preact/hooks';
import { type ApiError, asApiError, rawCall } from './api';
import { ActionError } from './errors';
import { Loading } from './loading';

export interface ScriptStep {
  /** What the step is, e.g. "1. initial-create". */
  title: string;
  /** When to run it and what it does (scripts that are not steps of one flow). */
  description?: string;
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

/**
 * Each step's Generate button with its script below it, or its refusal beside it: a refusal
 * replaces the step's earlier script (an old script under a new error would read as current).
 * `loadAtOnce` generates every step when shown (the cleanup after a failed setup).
 */
export function ScriptSteps({
  steps,
  loadAtOnce = false,
  ordered = true,
}: {
  steps: ScriptStep[];
  loadAtOnce?: boolean;
  /** Steps to run in order (numbered), or scripts each for its own situation (not numbered). */
  ordered?: boolean;
}) {
  const [scripts, setScripts] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, ApiError>>({});
  const [busy, setBusy] = useState<string | null>(null);
  const load = async (step: ScriptStep) => {
    setBusy(step.title);
    const result = await rawCall(
      'POST',
      step.path,
      step.body === undefined
        ? undefined
        : { text: JSON.stringify(step.body), contentType: 'application/json' },
    );
    setBusy(null);
    const ok = result.status === 200;
    const without = <T,>(all: Record<string, T>) => {
      const { [step.title]: _dropped, ...rest } = all;
      return rest;
    };
    setScripts((all) =>
      ok ? { ...all, [step.title]: (result.json as { script: string }).script } : without(all),
    );
    setErrors((all) =>
      ok ? without(all) : { ...all, [step.title]: asApiError(result.json, result.status) },
    );
  };
  useEffect(() => {
    if (loadAtOnce) for (const step of steps) void load(step);
  }, [loadAtOnce]);
  const List = ordered ? 'ol' : 'ul';
  return (
    <div class="steps">
      <List class={ordered ? undefined : 'scripts'}>
        {steps.map((step) => (
          <li key={step.title}>
            {step.description && <p class="hint">{step.description}</p>}
            <div class="actions">
              <button type="button" disabled={busy === step.title} onClick={() => load(step)}>
                Generate {step.title}
              </button>
              <ActionError error={errors[step.title] ?? null} />
            </div>
            {busy === step.title && <Loading label={`Generating ${step.title}…`} />}
            {scripts[step.title] !== undefined && (
              <ScriptViewer title={step.title} script={scripts[step.title] as string} />
            )}
          </li>
        ))}
      </List>
    </div>
  );
}
