// Package privacy is baton's one privacy filter. Every piece of user or
// assistant text baton keeps passes through Scrub first: a bottle's messages
// and observations (package bottle), and every text the continuity service
// persists (memory content and topics, stored prompts, Stop excerpts,
// records). Both import this package, so there is one rule and one
// implementation.
//
// Files:
//
//	privacy.go       ContextTag, the scrubbed tags, Scrub
//	privacy_test.go  the tag table and a fuzz target seeded with a real transcript
package privacy
