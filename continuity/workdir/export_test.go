package workdir

// InspectGit is Inspect by running git, whatever native would answer: the
// reference the native reading is tested against.
var InspectGit = inspectGit
