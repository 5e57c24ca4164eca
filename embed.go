// Package releasegate holds the report site's templates and static assets,
// embedded so that an installed binary needs no files beside it.
package releasegate

import (
	"embed"
	"io/fs"
)

//go:embed templates assets
var web embed.FS

// Web returns the embedded web files: templates/ and assets/.
func Web() fs.FS { return web }
