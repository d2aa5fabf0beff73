// Package httpapi is baton's HTTP surface: NewHandler serves
// continuity.API for the tenant each request authenticates as, and Client
// implements continuity.API over it, so a hook or a baton command talks to
// a team server exactly as it talks to the local service (the scenario
// suite runs through both).
//
// JSON is camelCase, the param and result types are continuity's own;
// errors are {"error": {"code", "message", "fields"?}} with one code →
// status table; bodies are decoded strictly (unknown members, members
// named in another case than their field's or repeated in one object,
// other JSON types, trailing data and bodies over MaxBodyBytes are
// refused, and so is a query parameter a route does not take) and text that is not UTF-8 reaches the service as sent, so it
// is refused naming its field. A body is read within Options.BodyTimeout
// when the server bounds no read of its own; a write read whole is done
// even when its client disconnects before the answer. A 401 carries
// WWW-Authenticate: Bearer.
// Requests are logged with their id, route, status and duration only.
// openapi.json describes every route and is tested against the handler in
// both directions.
//
// Beside the API's routes, a tenant's data rights: GET /api/v1/export
// streams the tenant's export (application/x-ndjson, continuity's export
// format) and POST /api/v1/admin/erase erases a tenant for an
// administrator's key (Options.AdminAuthenticator, a key set apart from
// the tenants'); the handler reaches them through continuity.TenantData.
//
// Files:
//
//	routes.go   the route table: method, path, request and response types, status, retry policy; the data-rights routes
//	handler.go  NewHandler, Options: authentication, decoding, one API call, encoding, the log line;
//	            the status page (package statuspage) under /status/ when Options.Status is set
//	decode.go   strict body decoding; strings that are not UTF-8 put back as sent
//	wire.go     the wire types of methods without a continuity type; the query codec
//	errors.go   the code → status table, the error body, ErrUnreachable
//	auth.go     Authenticator and KeyAuthenticator (hashed keys, constant-time compare)
//	client.go   Client: continuity.API over HTTP, timeouts, bounded retries of idempotent calls, no redirect followed; ServerURL
//	openapi.json the OpenAPI 3.1 description, generated from the route table by the tests
//	loadbench/  a command: Stop heartbeats from 32 clients against baton serve on Postgres, beside the bare UPDATE
package httpapi
