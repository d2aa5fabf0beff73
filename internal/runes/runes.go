// Package runes bounds text by its length in characters (runes), the unit
// every baton limit is declared in, never cutting inside a character.
package runes

import "unicode/utf8"

// Cut returns s cut to its first n characters, and whether anything was
// dropped. n below zero is zero.
func Cut(s string, n int) (string, bool) {
	if n <= 0 {
		return "", s != ""
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k], true
		}
		i++
	}
	return s, false
}

// Ellipsize returns s when it is at most n characters, else its first n-1
// characters and "…", n in all.
func Ellipsize(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	head, _ := Cut(s, n-1)
	return head + "…"
}
