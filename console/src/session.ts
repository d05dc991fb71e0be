/**
 * The signed-in API key. Kept in sessionStorage (gone when the tab closes), sent only in the
 * Authorization header, never put in a URL or logged.
 */
import { signal } from '@preact/signals';

const KEY = 'causeway.apiKey';

export interface Me {
  userId: number;
  name: string;
  permissions: string[];
}

export const apiKey = signal<string | null>(sessionStorage.getItem(KEY));
export const me = signal<Me | null>(null);
/** Why the user is back on the sign-in screen (the API's 401 message), if they were sent back. */
export const signInMessage = signal<string | null>(null);

export function signIn(key: string): void {
  sessionStorage.setItem(KEY, key);
  apiKey.value = key;
  signInMessage.value = null;
}

export function signOut(message: string | null = null): void {
  sessionStorage.removeItem(KEY);
  apiKey.value = null;
  me.value = null;
  signInMessage.value = message;
}

export const isAdmin = (): boolean => me.value?.permissions.includes('APPLICATION_ADMIN') ?? false;
