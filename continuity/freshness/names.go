package freshness

import "fmt"

// names is an enum's stable vocabulary, indexed by value: the one mechanism
// behind both Label's and Divergence's String, MarshalText and UnmarshalText.
type names[T ~int] struct {
	kind  string // "label", "divergence": for messages
	words []string
}

func (n names[T]) defined(v T) bool { return v >= 0 && int(v) < len(n.words) }

func (n names[T]) word(v T) string {
	if !n.defined(v) {
		return fmt.Sprintf("%s(%d)", n.kind, int(v))
	}
	return n.words[v]
}

func (n names[T]) marshal(v T) ([]byte, error) {
	if !n.defined(v) {
		return nil, fmt.Errorf("freshness: unknown %s %d", n.kind, int(v))
	}
	return []byte(n.words[v]), nil
}

func (n names[T]) unmarshal(b []byte, v *T) error {
	for i, w := range n.words {
		if string(b) == w {
			*v = T(i)
			return nil
		}
	}
	return fmt.Errorf("freshness: unknown %s %q", n.kind, b)
}
