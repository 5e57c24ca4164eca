module github.com/releasegate/releasegate

go 1.26.8

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/yuin/goldmark v1.8.7
)

require golang.org/x/text v0.14.0 // indirect
