package httpapi

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/google/uuid"
)

var update = flag.Bool("update", false, "rewrite openapi.json from the route table")

// openAPIFile is the checked-in description of the HTTP surface.
const openAPIFile = "openapi.json"

// object is a JSON object of the description.
type object = map[string]any

// openAPI generates the OpenAPI 3.1 description of the route table: each
// route's parameters, body and answers, every struct an object schema
// whose members are exactly its JSON members (those without omitempty or
// omitzero required), so the description says what the handler and the
// client really send.
func openAPI() object {
	schemas := object{}
	paths := object{}
	// One shared answer per error code; an episode route's failures carry
	// its result so far, in a schema of their own.
	errorSchema := schemaOf(reflect.TypeFor[ErrorBody](), schemas)
	shared := object{}
	type failure struct {
		code   string
		status int
	}
	var failures []failure
	// A 401 carries its challenge (RFC 9110, section 11.6.1).
	challenge := object{"WWW-Authenticate": object{"description": "the scheme the key is sent in",
		"schema": object{"type": "string", "const": "Bearer"}}}
	for c, s := range statuses {
		failures = append(failures, failure{string(c), s})
		shared[string(c)] = object{"description": http.StatusText(s) + " (" + string(c) + ")",
			"content": object{"application/json": object{"schema": errorSchema}}}
		if s == http.StatusUnauthorized {
			shared[string(c)].(object)["headers"] = challenge
		}
	}
	slices.SortFunc(failures, func(a, b failure) int { return a.status - b.status })
	for i := range served {
		rt := &served[i]
		op := object{"operationId": rt.name, "summary": summaries[rt.name]}
		var params []any
		for _, name := range pathValues(rt.path) {
			params = append(params, object{"name": name, "in": "path", "required": true, "schema": object{"type": "string"}})
		}
		switch {
		case rt.request == nil:
		case rt.method == http.MethodGet:
			for _, f := range fieldsOf(rt.request) {
				p := object{"name": f.name, "in": "query", "required": !f.optional, "schema": schemaOf(f.typ, schemas)}
				params = append(params, p)
			}
		default:
			op["requestBody"] = object{"required": true, "content": object{"application/json": object{"schema": schemaOf(rt.request, schemas)}}}
		}
		if params != nil {
			op["parameters"] = params
		}
		responses := object{}
		success := object{"description": http.StatusText(rt.status)}
		switch {
		case rt.response == nil:
		case rt.response == reflect.TypeFor[healthText]():
			success["content"] = object{"text/plain": object{"schema": object{"type": "string", "const": "ok"}}}
		case rt.response == reflect.TypeFor[exportStream]():
			success["content"] = object{"application/x-ndjson": object{"schema": object{"type": "string",
				"description": "the export format (continuity.ExportFormat, version " + strconv.Itoa(continuity.ExportVersion) + "): " +
					"JSON lines, a header {format, version, tenant, exportedAt} then one {table, row} line per row"}}}
		default:
			success["content"] = object{"application/json": object{"schema": schemaOf(rt.response, schemas)}}
		}
		responses[strconv.Itoa(rt.status)] = success
		switch {
		case rt.traits&public != 0:
			op["security"] = []any{}
		case rt.traits&admin != 0:
			op["security"] = []any{object{"adminKey": []any{}}}
		}
		if rt.traits&public == 0 {
			var partialSchema object
			if rt.traits&partial != 0 {
				partialSchema = partialFailure(rt.name, rt.response, schemas)
			}
			for _, f := range failures {
				if f.status == http.StatusRequestEntityTooLarge && rt.method == http.MethodGet {
					continue // no body to be too large
				}
				r := object{"$ref": "#/components/responses/" + f.code}
				if partialSchema != nil {
					r = object{"description": http.StatusText(f.status) + " (" + f.code + ")",
						"content": object{"application/json": object{"schema": partialSchema}}}
					if f.status == http.StatusUnauthorized {
						r["headers"] = challenge
					}
				}
				responses[strconv.Itoa(f.status)] = r
			}
		}
		op["responses"] = responses
		item, _ := paths[rt.path].(object)
		if item == nil {
			item = object{}
			paths[rt.path] = item
		}
		item[strings.ToLower(rt.method)] = op
	}
	return object{
		"openapi": "3.1.0",
		"info": object{
			"title":   "baton",
			"version": "1",
			"description": "baton's HTTP surface (adapters/httpapi), generated from its route table: the session-continuity REST " +
				"contract and one route per continuity.API method. Routes are relative to where the handler is mounted. " +
				"Errors are {\"error\": {\"code\", \"message\", \"fields\"?}}; a failed episode call carries its result so far " +
				"(the receipt id) beside the error. A body is sent as application/json (another Content-Type, or none, is " +
				"invalid naming Content-Type); bodies over " + strconv.Itoa(MaxBodyBytes) + " bytes are too_large; unknown " +
				"members (a member's name is its field's exactly, case included), a member repeated in one object, " +
				"other JSON types and text that is not UTF-8 are invalid, naming the field, and so is a query " +
				"parameter the route does not take (every parameter of a POST or of a read with none described).",
		},
		"security": []any{object{"apiKey": []any{}}},
		"components": object{
			"securitySchemes": object{
				"apiKey":   object{"type": "http", "scheme": "bearer", "description": "an API key the server maps to a tenant"},
				"adminKey": object{"type": "http", "scheme": "bearer", "description": "an administrator's key (a set apart from the API keys) the server maps to the tenant it administers"},
			},
			"schemas":   schemas,
			"responses": shared,
		},
		"paths": paths,
	}
}

// summaries say what each route is for, in the description.
var summaries = map[string]string{
	"Health":         "the health probe; needs no key",
	"SessionStart":   "a SessionStart of any source: briefing, open or activation, marker claim, handover",
	"UserPrompt":     "a user prompt: kept privacy filtered and bounded for degraded bottles",
	"Stop":           "a Stop: heartbeat with the bounded last message; the triage handshake when nudge is set",
	"PreCompact":     "a PreCompact: arm the sealed bottle's marker and write a checkpoint",
	"SessionEnd":     "a SessionEnd: close by natural key and write a handover",
	"RecordFailure":  "record that the local half of an event failed after its episode call",
	"Open":           "startup insert or resume by natural key; a startup retried with other values is 409",
	"Heartbeat":      "last_seen_at by natural key, with an optional bounded excerpt; resurrects a closed row",
	"Close":          "closed_at by natural key, no epoch; idempotent",
	"Session":        "a conversation's row by natural key",
	"TriageBegin":    "evaluate the entry rule and the debounce; arm an attempt or decline with a reason",
	"TriageComplete": "absorb the attempt's writes and stamp the watermark, fenced on the attempt id",
	"RunEvents":      "a run's provenance events, keyset paginated; ids, kinds and times only",
	"Debrief":        "the debrief prompt's text",
	"Remember":       "write a curated memory, attributed to a run when it carries or implies one",
	"Import":         "import a memory, never attributed",
	"Memory":         "one memory by id",
	"Revise":         "replace a memory with a successor",
	"Resolve":        "resolve a memory",
	"Unresolve":      "reopen a resolved memory",
	"Archive":        "archive a memory",
	"Briefing":       "the briefing of a project and scope",
	"Records":        "checkpoints and handovers, newest first",
	"AppendReceipt":  "append a provider.event.received line to the ledger",
	"Ledger":         "the receipts ledger, oldest first",
	"ArmBottle":      "arm a conversation's bottle marker",
	"ClaimBottle":    "claim a conversation's armed bottle marker, once",
	"SessionHistory": "a conversation's prompts and Stop excerpts, for degraded bottles",
	"RecordPrompt":   "keep a user prompt for degraded bottles",
	"Doctor":         "findings about what baton has and has not written, with a severity and a sentence each",
	"Export":         "every row the tenant owns, streamed in the export format (JSON lines)",
	"Erase":          "erase every row of the administered tenant, in bounded batches; resumable (an administrator's key)",
	"Sessions":       "conversations with their lease state, newest first, filtered by project, agent and state",
	"SessionLedger":  "one session id's ledger lines, oldest first",
}

var pathValue = regexp.MustCompile(`\{([^}]+)\}`)

// pathValues returns the names of a path's values.
func pathValues(p string) []string {
	var out []string
	for _, m := range pathValue.FindAllStringSubmatch(p, -1) {
		out = append(out, m[1])
	}
	return out
}

// schemaOf returns the schema of t, registering each named struct in
// schemas under its package-qualified name.
func schemaOf(t reflect.Type, schemas object) object {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeFor[time.Time]():
		return object{"type": "string", "format": "date-time"}
	case t == uuidType:
		return object{"type": "string", "format": "uuid"}
	case t.Implements(textMarshaler):
		return object{"type": "string"}
	}
	switch t.Kind() {
	case reflect.String:
		return object{"type": "string"}
	case reflect.Bool:
		return object{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return object{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return object{"type": "number"}
	case reflect.Slice, reflect.Array:
		return object{"type": "array", "items": schemaOf(t.Elem(), schemas)}
	case reflect.Map:
		return object{"type": "object", "additionalProperties": schemaOf(t.Elem(), schemas)}
	case reflect.Struct:
		name := path.Base(t.PkgPath()) + "." + t.Name()
		ref := object{"$ref": "#/components/schemas/" + name}
		if _, done := schemas[name]; done {
			return ref
		}
		schemas[name] = object{} // a placeholder against recursion
		props := object{}
		required := []any{}
		for _, f := range fieldsOf(t) {
			props[f.name] = schemaOf(f.typ, schemas)
			if !f.optional {
				required = append(required, f.name)
			}
		}
		s := object{"type": "object", "properties": props, "additionalProperties": false}
		if len(required) > 0 {
			s["required"] = required
		}
		schemas[name] = s
		return ref
	}
	panic("httpapi: no schema for " + t.String())
}

// partialFailure registers the error answer of an episode route: the
// error, and the members of its result, none required, beside it.
func partialFailure(route string, result reflect.Type, schemas object) object {
	props := object{"error": schemaOf(reflect.TypeFor[continuity.Error](), schemas)}
	for _, f := range fieldsOf(result) {
		props[f.name] = schemaOf(f.typ, schemas)
	}
	name := "httpapi." + route + "Failure"
	schemas[name] = object{"type": "object", "required": []any{"error"}, "properties": props, "additionalProperties": false}
	return object{"$ref": "#/components/schemas/" + name}
}

// marshalDoc renders a description as the checked-in file is written.
func marshalDoc(doc object) []byte {
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// TestOpenAPIFile: the checked-in description is the one the route table
// generates (go test -run TestOpenAPIFile -update rewrites it).
func TestOpenAPIFile(t *testing.T) {
	want := marshalDoc(openAPI())
	if *update {
		if err := os.WriteFile(openAPIFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(openAPIFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from the route table's description; run go test -run TestOpenAPIFile -update", openAPIFile)
	}
}

// description is the checked-in OpenAPI file, read for validation.
type description struct {
	doc object
	mux *http.ServeMux // the described routes, to find a request's operation
}

func readDescription(t *testing.T) *description {
	t.Helper()
	b, err := os.ReadFile(openAPIFile)
	if err != nil {
		t.Fatal(err)
	}
	d := &description{mux: http.NewServeMux()}
	if err := json.Unmarshal(b, &d.doc); err != nil {
		t.Fatal(err)
	}
	for p, item := range d.doc["paths"].(object) {
		for method := range item.(object) {
			d.mux.Handle(strings.ToUpper(method)+" "+p, http.NotFoundHandler())
		}
	}
	return d
}

// operation returns the described operation of r (its path relative to the
// mount point), or nil.
func (d *description) operation(r *http.Request) (pattern string, op object) {
	_, pattern = d.mux.Handler(r)
	if pattern == "" {
		return "", nil
	}
	method, p, _ := strings.Cut(pattern, " ")
	return pattern, d.doc["paths"].(object)[p].(object)[strings.ToLower(method)].(object)
}

// bodySchema returns the schema of content's JSON body, or nil.
func bodySchema(content any) object {
	c, _ := content.(object)
	j, _ := c["application/json"].(object)
	s, _ := j["schema"].(object)
	return s
}

// validate returns where v does not match schema: a type, a required
// member, an undescribed member, a format.
func (d *description) validate(schema object, v any, at string) []string {
	if ref, ok := schema["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		return d.validate(d.doc["components"].(object)["schemas"].(object)[name].(object), v, at)
	}
	var errs []string
	if typ, ok := schema["type"].(string); ok && !isType(v, typ) {
		return []string{fmt.Sprintf("%s: %T is not a JSON %s", at, v, typ)}
	}
	switch schema["format"] {
	case "uuid":
		if _, err := uuid.Parse(v.(string)); err != nil {
			errs = append(errs, at+": not a UUID")
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339Nano, v.(string)); err != nil {
			errs = append(errs, at+": not an RFC 3339 time")
		}
	}
	switch v := v.(type) {
	case object:
		for _, r := range asList(schema["required"]) {
			if _, ok := v[r.(string)]; !ok {
				errs = append(errs, fmt.Sprintf("%s: required member %q is missing", at, r))
			}
		}
		props, _ := schema["properties"].(object)
		for k, mv := range v {
			switch ps, ok := props[k].(object); {
			case ok:
				errs = append(errs, d.validate(ps, mv, at+"."+k)...)
			case schema["additionalProperties"] == false:
				errs = append(errs, fmt.Sprintf("%s: member %q is not described", at, k))
			default:
				if as, ok := schema["additionalProperties"].(object); ok {
					errs = append(errs, d.validate(as, mv, at+"."+k)...)
				}
			}
		}
	case []any:
		if items, ok := schema["items"].(object); ok {
			for i, e := range v {
				errs = append(errs, d.validate(items, e, at+"["+strconv.Itoa(i)+"]")...)
			}
		}
	}
	return errs
}

func asList(v any) []any { l, _ := v.([]any); return l }

func isType(v any, typ string) bool {
	switch v := v.(type) {
	case object:
		return typ == "object"
	case []any:
		return typ == "array"
	case string:
		return typ == "string"
	case bool:
		return typ == "boolean"
	case float64:
		return typ == "number" || typ == "integer" && v == math.Trunc(v)
	case nil:
		return typ == "null"
	}
	return false
}

// exchange is one request and its answer, as a wrapper saw them.
type exchange struct {
	pattern     string
	status      int
	request     any // the decoded JSON body, nil for none
	answer      any // the decoded JSON answer, nil for none
	contentType string
}

// validating returns a wrapper of the handler that checks every exchange
// against the description, reporting each mismatch on t, and hands each
// exchange to seen (when not nil).
func (d *description) validating(t *testing.T, seen func(exchange)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var body []byte
			if r.Body != nil {
				body, _ = readAll(r)
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			ex := d.check(t, r, body, rec)
			if seen != nil {
				seen(ex)
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
		})
	}
}

// check validates one exchange against the description.
func (d *description) check(t *testing.T, r *http.Request, body []byte, rec *httptest.ResponseRecorder) exchange {
	t.Helper()
	ex := exchange{status: rec.Code, contentType: rec.Header().Get("Content-Type")}
	pattern, op := d.operation(r)
	if op == nil {
		if rec.Code != http.StatusNotFound {
			t.Errorf("%s %s is not described, yet answered %d", r.Method, r.URL.Path, rec.Code)
		}
		return ex
	}
	ex.pattern = pattern
	if len(bytes.TrimSpace(body)) > 0 && json.Unmarshal(body, &ex.request) == nil && rec.Code < 300 {
		// A request the handler took must be of the described shape.
		rb, _ := op["requestBody"].(object)
		if errs := d.validate(bodySchema(rb["content"]), ex.request, "request"); len(errs) > 0 {
			t.Errorf("%s: the request is not as described: %v", pattern, errs)
		}
	}
	resp, _ := op["responses"].(object)[strconv.Itoa(rec.Code)].(object)
	if ref, ok := resp["$ref"].(string); ok {
		resp, _ = d.doc["components"].(object)["responses"].(object)[strings.TrimPrefix(ref, "#/components/responses/")].(object)
	}
	if resp == nil {
		t.Errorf("%s answered %d, which is not described", pattern, rec.Code)
		return ex
	}
	headers, _ := resp["headers"].(object)
	for name, h := range headers {
		schema, _ := h.(object)["schema"].(object)
		if want, ok := schema["const"].(string); ok && rec.Header().Get(name) != want {
			t.Errorf("%s answered %d with %s %q, want %q", pattern, rec.Code, name, rec.Header().Get(name), want)
		}
	}
	content, _ := resp["content"].(object)
	switch {
	case content == nil:
		if rec.Body.Len() != 0 {
			t.Errorf("%s answered %d with a body; none is described", pattern, rec.Code)
		}
	case content["text/plain"] != nil:
		if !strings.HasPrefix(ex.contentType, "text/plain") || rec.Body.String() != "ok" {
			t.Errorf("%s answered %q (%s), want the described text", pattern, rec.Body.String(), ex.contentType)
		}
	case content["application/x-ndjson"] != nil:
		lines := strings.SplitAfter(rec.Body.String(), "\n")
		if ex.contentType != "application/x-ndjson" || lines[len(lines)-1] != "" {
			t.Errorf("%s answered %q, want JSON lines, each ended", pattern, ex.contentType)
		}
		for i, l := range lines[:len(lines)-1] {
			var v object
			if json.Unmarshal([]byte(l), &v) != nil {
				t.Errorf("%s: line %d of the answer is not a JSON object", pattern, i+1)
			}
		}
	default:
		if ex.contentType != "application/json" || json.Unmarshal(rec.Body.Bytes(), &ex.answer) != nil {
			t.Errorf("%s answered %d with %q, not JSON", pattern, rec.Code, ex.contentType)
			return ex
		}
		if errs := d.validate(bodySchema(content), ex.answer, "answer"); len(errs) > 0 {
			t.Errorf("%s: the %d answer is not as described: %v", pattern, rec.Code, errs)
		}
	}
	return ex
}

// TestOpenAPIServed: every described operation is served (a request
// without a key and one with an empty body each get a described status and
// shape, never the not-found of an unknown route), and every route the
// handler serves is described; an undescribed path is not found.
func TestOpenAPIServed(t *testing.T) {
	d := readDescription(t)
	s := newServer(t, sqltest.SQLite, time.Now, Options{}, d.validating(t, nil))
	described := map[string]bool{}
	for p, item := range d.doc["paths"].(object) {
		for method := range item.(object) {
			pattern := strings.ToUpper(method) + " " + p
			described[pattern] = true
			url := s.URL + prefix + pathValue.ReplaceAllString(p, uuid.NewString())
			for _, key := range []string{"", keyA} {
				var body *strings.Reader
				if method == "post" {
					body = strings.NewReader("{}")
				} else {
					body = strings.NewReader("")
				}
				req, _ := http.NewRequest(strings.ToUpper(method), url, body)
				if key != "" {
					req.Header.Set("Authorization", "Bearer "+key)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				var eb ErrorBody
				json.NewDecoder(resp.Body).Decode(&eb)
				resp.Body.Close()
				if eb.Error != nil && eb.Error.Message == "no such route" {
					t.Errorf("%s is described but not served", pattern)
				}
			}
		}
	}
	for i := range served {
		if !described[served[i].pattern()] {
			t.Errorf("%s is served but not described", served[i].pattern())
		}
	}
	if len(described) != len(served) {
		t.Errorf("%d operations described, %d routes served", len(described), len(served))
	}
	resp, err := http.Get(s.URL + prefix + "/api/v1/nothing-here")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("an undescribed path answered %d, want 404", resp.StatusCode)
	}
}

// readAll reads and restores a request's body.
func readAll(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, err
}

// TestOpenAPIRequiredParameters: a query parameter the description calls
// optional may be left out. Each described GET operation is asked with none
// of its query parameters; a parameter its invalid answer names must be
// one the description requires.
func TestOpenAPIRequiredParameters(t *testing.T) {
	d := readDescription(t)
	s := newServer(t, sqltest.SQLite, time.Now, Options{}, nil)
	asked := 0
	for p, item := range d.doc["paths"].(object) {
		op, _ := item.(object)["get"].(object)
		if op == nil {
			continue
		}
		required := map[string]bool{}
		query := 0
		for _, param := range asList(op["parameters"]) {
			param := param.(object)
			if param["in"] == "query" {
				query++
				required[param["name"].(string)] = param["required"] == true
			}
		}
		if query == 0 {
			continue
		}
		asked++
		a := s.send(t, "GET", pathValue.ReplaceAllString(p, uuid.NewString()), keyA, "")
		if a.status != http.StatusBadRequest || a.err == nil {
			continue
		}
		for name := range a.err.Fields {
			if r, ok := required[name]; ok && !r {
				t.Errorf("GET %s without its query answered 400 naming %s (%s), which the description calls optional",
					p, name, a.err.Fields[name])
			}
		}
	}
	if asked == 0 {
		t.Error("no described operation has query parameters")
	}
}
