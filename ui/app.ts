/** The run history page: the list of runs, one run's timeline, the difference of two runs. */
import { html, render } from "htm/preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { NeedsCredential } from "./api.js";
import { CredentialForm } from "./credential-form.js";
import { DiffView } from "./diff-view.js";
import { RunList } from "./run-list.js";
import { RunView } from "./run-view.js";

type Route = { page: "list" } | { page: "run"; id: string } | { page: "diff"; a: string; b: string };

function routeOf(hash: string): Route {
  const run = /^#\/runs\/(\w{26})$/.exec(hash);
  if (run) return { page: "run", id: run[1] as string };
  const diff = /^#\/diff\/(\w{26})\/(\w{26})$/.exec(hash);
  if (diff) return { page: "diff", a: diff[1] as string, b: diff[2] as string };
  return { page: "list" };
}

function useRoute(): Route {
  const [route, setRoute] = useState(routeOf(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(routeOf(location.hash));
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return route;
}

/** Errors the page shows: a credential serve asks for is a form, anything else a message. */
function useFailure() {
  const [failure, setFailure] = useState<unknown>(undefined);
  return {
    failure,
    fail: useCallback((error: unknown) => setFailure(error), []),
    clear: () => setFailure(undefined),
  };
}

function App() {
  const route = useRoute();
  const { failure, fail, clear } = useFailure();
  // A message belongs to the view that met it; a credential form stays until it is answered.
  useEffect(() => {
    if (!(failure instanceof NeedsCredential)) clear();
  }, [route]);
  // Bumped when a credential is given: every view loads again with it.
  const [generation, setGeneration] = useState(0);
  const retry = () => {
    clear();
    setGeneration(generation + 1);
  };
  let view = html`<${RunList} fail=${fail} key=${generation} />`;
  if (route.page === "run")
    view = html`<${RunView} id=${route.id} fail=${fail} key=${`${route.id}-${generation}`} />`;
  if (route.page === "diff")
    view = html`<${DiffView} a=${route.a} b=${route.b} fail=${fail} key=${`${route.a}-${route.b}-${generation}`} />`;
  return html`
    <header class="top">
      <a class="brand" href="#/">bass</a>
      <span class="muted">run history</span>
    </header>
    <main id="main">
      ${
        failure instanceof NeedsCredential
          ? html`<${CredentialForm} scheme=${failure.scheme} done=${retry} />`
          : failure
            ? html`<p class="error" role="alert">${String((failure as Error).message ?? failure)}</p>`
            : null
      }
      ${failure instanceof NeedsCredential ? null : view}
    </main>
  `;
}

render(html`<${App} />`, document.getElementById("app") as HTMLElement);
