/** The form that asks for serve's credential when a data route answers 401. */
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import { setCredential } from "./api.js";

/** Serve asked for a credential: the user gives it once, for this tab. */
export function CredentialForm({ scheme, done }: { scheme: "Bearer" | "Basic"; done: () => void }) {
  const [token, setToken] = useState("");
  const [user, setUser] = useState("");
  const submit = (event: Event) => {
    event.preventDefault();
    setCredential(scheme === "Bearer" ? `Bearer ${token}` : `Basic ${btoa(`${user}:${token}`)}`);
    done();
  };
  const value = (set: (text: string) => void) => (event: InputEvent) =>
    set((event.target as HTMLInputElement).value);
  return html`
    <form class="card credential" onSubmit=${submit}>
      <h1>This server needs a credential</h1>
      <p>It is kept for this tab only and sent as the Authorization header.</p>
      ${
        scheme === "Basic"
          ? html`<label>User <input autocomplete="username" value=${user} onInput=${value(setUser)} required /></label>`
          : null
      }
      <label>${scheme === "Bearer" ? "Token" : "Password"}
        <input type="password" autocomplete="current-password" value=${token} onInput=${value(setToken)} required />
      </label>
      <button type="submit">Continue</button>
    </form>
  `;
}
