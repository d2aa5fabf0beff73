package continuity

import "github.com/batonhq/baton/bottle"

// Scrub is the one privacy filter (bottle's): every place baton persists user
// or assistant text passes through it.
func Scrub(s string) string { return bottle.Scrub(s) }
