// Package privacy is baton's one privacy filter. Every piece of user or
// assistant text baton keeps passes through Scrub first: a bottle's messages
// and observations (package bottle), and every text the continuity service
// persists (memory content and topics, stored prompts, Stop excerpts,
// records). Both import this package, so there is one rule and one
// implementation.
//
// Files:
//
//	privacy.go       ContextTag, the scrubbed tags, the one-pass scanner behind
//	                 Scrub, ScrubPart (a text kept as parts) and Residue
//	privacy_test.go  the tag table, fuzz targets (one seeded with a real
//	                 transcript, one hiding a secret in random nesting), and
//	                 the benchmarks: go test -run '^$' -bench Scrub -benchmem ./bottle/privacy
package privacy
