package pages

// CutIntoBlocks lets the external tests check that a document takes the
// path of RenderMarkdownBlocks that cuts it into blocks.
func CutIntoBlocks(src []byte) (blocks int, ok bool) {
	bs, ok := markdownBlocks(src)
	return len(bs), ok
}

// TestDataDirs lets the external tests run on the data folders the page
// tests run on.
var TestDataDirs = testDataDirs
