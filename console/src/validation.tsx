/** A dry run's or a stored integration's validation tests, each with its status and message. */
interface Results {
  status: string;
  validationTests: { name: string; status: string; message?: string | undefined }[];
}

export function ValidationResults({ results }: { results: Results | undefined }) {
  if (!results) return null;
  return (
    <section class="validation" aria-label="Validation results">
      <h2>
        Validation:{' '}
        <span class={`badge ${results.status === 'failed' ? 'bad' : 'ok'}`}>{results.status}</span>
      </h2>
      <ul>
        {results.validationTests.map((t) => (
          <li key={t.name}>
            <span class={`badge ${t.status === 'failed' ? 'bad' : t.status === 'passed' ? 'ok' : 'muted'}`}>
              {t.status}
            </span>{' '}
            <strong>{t.name}</strong>
            {t.message ? ` — ${t.message}` : ''}
          </li>
        ))}
      </ul>
    </section>
  );
}
