// Package statuspage is baton's read-only status page: server-rendered
// HTML over continuity.API for the tenant each request authenticates as,
// mounted by httpapi.NewHandler under /status/ (Options.Status) so that
// `baton serve` and every host that embeds the handler serve it.
//
// Pages: the sessions (one row per conversation, filtered by project and
// lease state), one session (its ledger as a timeline, its provenance
// events, its checkpoints and handovers with their freshness and
// divergence, its bottle as text), the memory (open commitments and
// blockers and recent decisions by project, each linked to the run that
// wrote it) and the doctor's findings.
//
// Everything is rendered by html/template and so escaped by context: a
// bottle is verbatim text written by a model and a person, shown in a
// <pre> as text. A page is then shown as the CLI prints text: control
// characters as spaces, and format characters (a right-to-left override,
// a zero-width space) as their code points, "<U+202E>". The pages load nothing from the network (inline CSS, one
// inline script that shows times in the viewer's zone, allowed by its hash
// in the Content-Security-Policy, which allows nothing else), refresh
// themselves with <meta http-equiv="refresh">, and log nothing a tenant
// wrote.
//
// Authentication is the API's Authenticator. A browser cannot send a
// Bearer header, so a page also accepts the key once as ?key=KEY: it is
// checked, kept in an HttpOnly, SameSite=Strict cookie scoped to the
// page's directory, and the browser is redirected to the URL without it.
// Later requests carry the cookie, which is presented to the
// Authenticator as the Bearer key. A ?key= that a browser says another
// site sent (Sec-Fetch-Site cross-site or same-site) is ignored, so no
// page can log its visitor in as its own tenant. Without valid credentials a page
// answers 401 with a form asking for the key.
//
// Files:
//
//	page.go        Options, New, the routes, authentication, rendering
//	data.go        what each page reads through the API
//	templates/     the pages (embedded)
//	screenshots/   the sessions and session pages of the demo, as the browser test shows them
package statuspage
