package render

import (
	"fmt"
	"io/fs"

	"github.com/releasegate/releasegate/site/pages"
)

// Asset is one static file, published under the same path.
type Asset struct {
	Path string
	Data []byte
}

// readAssets reads every file below assets/ in path order.
func readAssets(web fs.FS) ([]Asset, error) {
	var out []Asset
	err := fs.WalkDir(web, pages.AssetsDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(web, p)
		if err != nil {
			return err
		}
		out = append(out, Asset{Path: p, Data: b})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("site: assets: %w", err)
	}
	for _, need := range []string{pages.StylePath, pages.ScriptPath, pages.TablesScript, pages.IconPath, pages.EchartsDir + "echarts.min.js"} {
		if !hasAsset(out, need) {
			return nil, fmt.Errorf("site: assets: %s is missing", need)
		}
	}
	return out, nil
}

func hasAsset(as []Asset, p string) bool {
	for _, a := range as {
		if a.Path == p {
			return true
		}
	}
	return false
}
