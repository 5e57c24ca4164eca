package pages

// CutIntoBlocks lets the external tests check that a document takes the
// path of RenderMarkdownBlocks that cuts it into blocks.
func CutIntoBlocks(src []byte) (blocks int, ok bool) {
	bs, ok := markdownBlocks(src)
	return len(bs), ok
}

// PartsSize and RowsSize let the external tests check the size a grouped
// page's parts are written into.
func PartsSize(p *ResultGroupPage) int { return p.partsSize() }

// RowsSize is PartsSize for a grouped history page's rows.
func RowsSize(p *HistoryGroupPage) int { return p.rowsSize() }
