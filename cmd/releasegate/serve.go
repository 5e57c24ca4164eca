package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/site/serve"
)

const serveHelp = `Usage:

  releasegate serve [--data data] [--watch] [--addr 127.0.0.1:8080] [--open] [--web DIR]

Build the report site in memory and serve it over HTTP, on loopback unless
--addr says otherwise. Nothing is written to disk.

With --watch, every save in the data folder rebuilds the site and the open
pages reload by themselves. Only what a change needs is redone: an edited
snapshot is evaluated again; an edit of the cases, the policy or the
thresholds judges again only the cases it reaches; and only the pages
whose content changes are rendered again (a new template, or an edit of
case.schema.json, renders everything). While an input is invalid the last
good site stays served and every page shows the file, line and field to
fix.

Stop with Ctrl-C.

Examples:

  releasegate serve --watch
  releasegate serve --watch --web . --addr 127.0.0.1:9000 --open
`

func runServe(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("serve")
	data := fs.String("data", "data", dataUsage)
	watch := fs.Bool("watch", false, "rebuild on every change and reload the open pages")
	addr := fs.String("addr", serve.DefaultAddr, "listen on `ADDR`")
	open := fs.Bool("open", false, "open the site in the default browser (xdg-open)")
	web := fs.String("web", "", "read templates/ and assets/ from `DIR` instead of the built-in copies, and watch them too (for editing the report's look)")
	if code := parseFlags(fs, serveHelp, args, stdout, stderr); code >= 0 {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// After the first Ctrl-C a second one ends the process at once.
	context.AfterFunc(ctx, stop)
	err := serve.Run(ctx, serve.Config{
		Data:   *data,
		Web:    releasegate.Web(),
		WebDir: *web,
		Addr:   *addr,
		Watch:  *watch,
		Log:    stderr,
		Ready: func(url string) {
			how := ""
			if *watch {
				how = ", rebuilding on every change"
			}
			fmt.Fprintf(stdout, "serving %s%s; press Ctrl-C to stop\n", url, how)
			if *open {
				openBrowser(url)
			}
		},
	})
	if err != nil {
		return failure(stderr, err)
	}
	return exitOK
}

// openBrowser asks the desktop to open url, if it has a way to.
func openBrowser(url string) {
	opener, err := exec.LookPath("xdg-open")
	if err != nil {
		return // no desktop opener: the printed URL will do
	}
	cmd := exec.Command(opener, url)
	if cmd.Start() == nil {
		go cmd.Wait() // reap it; it exits as soon as the browser is asked
	}
}
