package publish

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/releasegate/releasegate/internal/parallel"
)

// removers is how many goroutines delete the files of a tree.
const removers = 4

// removeTree deletes the folder dir and everything in it, like
// os.RemoveAll, but removes the files of different folders at once: each
// removal waits on the file system, and removals in different folders do
// not wait on each other. What it saves on a site of tens of thousands of
// files in a few folders: "Fast paths" in docs/design.md.
func removeTree(dir string) error { return removeTreeLast(dir, "") }

// removeTreeLast is removeTree removing the file named last at the top of
// dir only after everything else: a stage keeps its marker until the
// end, so a run killed while sweeping it leaves a stage the next sweep
// still knows as releasegate's.
func removeTreeLast(dir, last string) error {
	var folders []folder
	listFolders(dir, &folders)
	if last != "" && len(folders) > 0 {
		top := &folders[len(folders)-1] // listFolders appends dir last
		top.files = slices.DeleteFunc(top.files, func(name string) bool { return name == last })
	}
	if len(folders) > 1 || last != "" {
		parallel.Each(len(folders), removers, func(i int) { removeFiles(folders[i]) })
	}
	if last != "" {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.Name() != last {
				os.RemoveAll(filepath.Join(dir, e.Name()))
			}
		}
		os.Remove(filepath.Join(dir, last))
	}
	// What is left is the empty folders, and whatever could not be
	// listed or removed above, for which RemoveAll reports the error.
	return os.RemoveAll(dir)
}

// folder is a folder and the names of the entries in it that are not
// folders.
type folder struct {
	path  string
	files []string
}

// listFolders appends dir and every folder below it, each with its files.
// What cannot be read is left to the final os.RemoveAll.
func listFolders(dir string, out *[]folder) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	f := folder{path: dir}
	for _, e := range entries {
		if e.IsDir() {
			listFolders(filepath.Join(dir, e.Name()), out)
		} else {
			f.files = append(f.files, e.Name())
		}
	}
	*out = append(*out, f)
}
