package hookproc

import (
	"reflect"
	"testing"

	"github.com/jinzhu/inflection"
)

func TestHookProcess(t *testing.T) {
	env := func(kv map[string]string) func(string) string {
		return func(k string) string { return kv[k] }
	}
	none := env(nil)
	for _, tc := range []struct {
		name   string
		args   []string
		getenv func(string) string
		want   bool
	}{
		{"hook", []string{"/bin/baton", "hook", "stop", "--harness", "codex"}, none, true},
		{"hook without an event", []string{"baton", "hook"}, none, true},
		{"another command", []string{"baton", "serve"}, none, false},
		{"hook as a later argument", []string{"baton", "remember", "hook"}, none, false},
		{"a flag before the command", []string{"baton", "--help", "hook"}, none, false},
		{"no command", []string{"baton"}, none, false},
		{"no arguments at all", nil, none, false},
		{"a prefix of hook", []string{"baton", "hoo"}, none, false},
		{"the person's GOMAXPROCS", []string{"baton", "hook", "start"}, env(map[string]string{"GOMAXPROCS": "4"}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := hookProcess(tc.args, tc.getenv); got != tc.want {
				t.Errorf("hookProcess(%q) = %v, want %v", tc.args, got, tc.want)
			}
		})
	}
}

// TestInflectionLists pins the layouts inflection.go assumes to the
// version of jinzhu/inflection in go.sum, and checks that its variables are
// inflection's lists. In this test binary inflection initializes first (the
// test imports it), so its rules were compiled before hookproc's init
// emptied the lists.
func TestInflectionLists(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want reflect.Type
	}{
		{"pluralInflections", reflect.TypeOf(inflection.GetPlural()), reflect.TypeOf(pluralInflections)},
		{"singularInflections", reflect.TypeOf(inflection.GetSingular()), reflect.TypeOf(singularInflections)},
		{"irregularInflections", reflect.TypeOf(inflection.GetIrregular()), reflect.TypeOf(irregularInflections)},
		{"uncountableInflections", reflect.TypeOf(inflection.GetUncountable()), reflect.TypeOf(uncountableInflections)},
	} {
		if !sameLayout(tc.got, tc.want) {
			t.Errorf("inflection.%s is a %v, hookproc declares a %v", tc.name, tc.got, tc.want)
		}
	}
	if n := len(inflection.GetPlural()) + len(inflection.GetSingular()) + len(inflection.GetIrregular()) + len(inflection.GetUncountable()); n != 0 {
		t.Fatalf("inflection keeps %d rules after hookproc's init emptied its lists", n)
	}
	if got := inflection.Plural("person"); got != "people" {
		t.Fatalf(`Plural("person") = %q before a recompile, want the rules compiled at inflection's init ("people")`, got)
	}
	inflection.SetUncountable(nil) // recompiles from the lists as they are
	for _, word := range []string{"person", "model", "agent_session", "Status"} {
		if got := inflection.Plural(word); got != word {
			t.Errorf("Plural(%q) = %q from emptied lists, want it unchanged", word, got)
		}
	}
}

// sameLayout reports whether a and b are slices of one layout: strings, or
// structs of the same number of string fields.
func sameLayout(a, b reflect.Type) bool {
	if a.Kind() != reflect.Slice || b.Kind() != reflect.Slice || a.Elem().Size() != b.Elem().Size() {
		return false
	}
	ea, eb := a.Elem(), b.Elem()
	if ea.Kind() != eb.Kind() {
		return false
	}
	switch ea.Kind() {
	case reflect.String:
		return true
	case reflect.Struct:
		if ea.NumField() != eb.NumField() {
			return false
		}
		for i := range ea.NumField() {
			if ea.Field(i).Type.Kind() != reflect.String || eb.Field(i).Type.Kind() != reflect.String || ea.Field(i).Offset != eb.Field(i).Offset {
				return false
			}
		}
		return true
	}
	return false
}
