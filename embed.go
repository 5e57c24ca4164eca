// Package releasegate holds the report site's templates and static assets,
// embedded so that an installed binary needs no files beside it, and the
// sample data folder that "releasegate init" copies into a new project.
package releasegate

import (
	"embed"
	"io/fs"
)

//go:embed templates assets
var web embed.FS

// Web returns the embedded web files: templates/ and assets/.
func Web() fs.FS { return web }

//go:embed data
var sample embed.FS

// Sample returns the embedded sample data folder, with its files at the
// root: POLICY.md, cases.jsonl, outputs/<label>.jsonl and the rest.
func Sample() fs.FS {
	sub, err := fs.Sub(sample, "data")
	if err != nil {
		panic(err) // unreachable: "data" is a valid path embedded above
	}
	return sub
}
