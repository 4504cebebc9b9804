// What the console's HTTP tests share: a browser reduced to its cookie jar and forms.
import type { TestServer } from './helpers.ts';

/** A browser's cookie jar, reduced to what the console sets. */
export class Browser {
  readonly cookies = new Map<string, string>();
  lastSetCookies: string[] = [];
  readonly server: TestServer;
  constructor(server: TestServer) {
    this.server = server;
  }

  async request(method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}) {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(`${this.server.url}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded', origin: this.server.url } : {}),
        ...headers,
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    this.lastSetCookies = response.headers.getSetCookie();
    for (const line of this.lastSetCookies) {
      const [pair] = line.split(';');
      const at = (pair ?? '').indexOf('=');
      const name = (pair ?? '').slice(0, at);
      const value = (pair ?? '').slice(at + 1);
      if (/Max-Age=0/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return {
      status: response.status,
      location: response.headers.get('location'),
      headers: response.headers,
      text: await response.text(),
    };
  }

  /** Signs in through the form, as a person would. */
  async signIn(credential: string) {
    const form = await this.request('GET', '/console/login');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? '';
    return this.request('POST', '/console/login', { _csrf: csrf, credential });
  }

  /** The CSRF token of the signed-in pages. */
  async csrf(path = '/console') {
    const page = await this.request('GET', path);
    return /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
  }
}
