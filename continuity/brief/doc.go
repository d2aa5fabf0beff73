// Package brief holds the pure rules of the SessionStart briefing: which
// section a memory lands in, and how the briefing is rendered within its
// character budget.
//
// The continuity service reads each section's rows on its own (Sections
// gives every section's bounds, so a full section never crowds another
// out), then hands the rows, the project and the optional newest handover
// to Render. Nothing here reads a clock or a database.
//
// Files:
//
//	sections.go      the section names, Section and Sections: the precedence of overdue, stale and current
//	render.go        Item, Handover, Input, Result, Render: the text and the rows that survived the cut
//	*_test.go        a boundary table over the sections, goldens under testdata (-update rewrites them)
package brief
