import { useState } from 'preact/hooks';
import { signIn, signInMessage } from '../session';

export function SignIn() {
  const [key, setKey] = useState('');
  return (
    <main class="signin">
      <h1>Causeway console</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (key.trim()) signIn(key.trim());
        }}
      >
        {signInMessage.value && (
          <div class="error" role="alert">
            {signInMessage.value}
          </div>
        )}
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autocomplete="off"
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
        />
        <p class="hint">
          The key stays in this tab (sessionStorage) and is sent only in the Authorization header.
        </p>
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}
