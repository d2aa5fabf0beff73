package httpapi

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/batonhq/baton/continuity"
)

// TestRoutesAreTheAPI: the table holds exactly one route per
// continuity.API method (and the health probe), each pattern once, each
// path under /api/v1/ but the probe's; the Client implements every method
// over its own route.
func TestRoutesAreTheAPI(t *testing.T) {
	api := reflect.TypeFor[continuity.API]()
	methods := map[string]bool{}
	for i := range api.NumMethod() {
		methods[api.Method(i).Name] = true
	}
	names, patterns := map[string]bool{}, map[string]bool{}
	for i := range routes {
		rt := &routes[i]
		switch {
		case names[rt.name]:
			t.Errorf("two routes carry %s", rt.name)
		case rt.name != "Health" && !methods[rt.name]:
			t.Errorf("route %s carries no continuity.API method", rt.name)
		case patterns[rt.pattern()]:
			t.Errorf("two routes are %s", rt.pattern())
		case rt.name != "Health" && !strings.HasPrefix(rt.path, "/api/v1/"):
			t.Errorf("%s is not under /api/v1/", rt.pattern())
		case rt.method != http.MethodGet && rt.method != http.MethodPost:
			t.Errorf("%s: only GET and POST are served", rt.pattern())
		case rt.method == http.MethodGet && rt.traits&partial != 0:
			t.Errorf("%s: a read has no partial result", rt.pattern())
		case rt.retry == nil:
			t.Errorf("%s has no retry policy", rt.pattern())
		}
		names[rt.name], patterns[rt.pattern()] = true, true
	}
	for m := range methods {
		if !names[m] {
			t.Errorf("continuity.API.%s has no route", m)
		}
	}
	if _, ok := reflect.TypeFor[*Client]().MethodByName("Health"); ok {
		t.Error("the Client has a method beyond continuity.API")
	}
}

// TestRetryPolicy: reads and the writes the contract makes idempotent by
// natural key (close; open of a startup) may be sent again; nothing else.
func TestRetryPolicy(t *testing.T) {
	retried := map[string]bool{}
	for i := range routes {
		rt := &routes[i]
		var req any
		if rt.request != nil {
			req = reflect.New(rt.request).Elem().Interface()
		}
		if rt.retry(req) {
			retried[rt.name] = true
		}
		if rt.method == http.MethodGet != rt.retry(req) && rt.name != "Close" {
			t.Errorf("%s: retried %v", rt.pattern(), rt.retry(req))
		}
	}
	if !retried["Close"] || retried["Open"] {
		t.Errorf("Close retried %v, an empty Open retried %v", retried["Close"], retried["Open"])
	}
	open := routeNamed("Open")
	for src, want := range map[continuity.Source]bool{continuity.SourceStartup: true, continuity.SourceResume: false} {
		if got := open.retry(continuity.OpenParams{Source: src}); got != want {
			t.Errorf("an open of source %s retried %v, want %v", src, got, want)
		}
	}
}

// TestEveryAnswerIsAnObject: every route that answers JSON answers an
// object, which is what the Client checks a success is before reading it;
// the probe's text and the export's stream are the two that answer other.
func TestEveryAnswerIsAnObject(t *testing.T) {
	for i := range routes {
		rt := &routes[i]
		switch rt.response {
		case nil, reflect.TypeFor[healthText](), reflect.TypeFor[exportStream]():
			continue
		}
		if k := rt.response.Kind(); k != reflect.Struct {
			t.Errorf("%s answers a %s, not an object", rt.pattern(), k)
		}
	}
}
