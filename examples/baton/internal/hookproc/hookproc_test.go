package hookproc

import "testing"

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
