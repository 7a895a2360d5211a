package report

import (
	"html/template"
	"io"
	"time"
)

// page is index.html: the summary, then each plot under its title with
// its caption and links to both of its files. The PNG is shown; the SVG
// is there to zoom into or to print.
var page = template.Must(template.New("index.html").Funcs(template.FuncMap{"utc": utc}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>freshcrawl report</title>
<style>
body { font-family: sans-serif; max-width: 60em; margin: 2em auto; padding: 0 1em; color: #222; }
img { max-width: 100%; border: 1px solid #ddd; }
figcaption { margin: 0.4em 0 2em; }
</style>
</head>
<body>
<h1>freshcrawl report</h1>
{{with .Summary}}<ul>
<li>pages held: {{.Held}}</li>
<li>URLs seen: {{.Seen}}</li>
<li>fetches: {{.Fetches}}, of which {{.Changes}} found a change</li>
<li>hosts fetched from: {{.Hosts}}</li>
<li>time span: {{if .First.IsZero}}no fetch recorded{{else}}{{utc .First}} to {{utc .Last}} ({{.Span}}){{end}}</li>
</ul>{{end}}
{{range .Plots}}<h2>{{.Title}}</h2>
<figure>
<a href="{{.Name}}.svg"><img src="{{.Name}}.png" alt="{{.Title}}"></a>
<figcaption>{{.Caption}} <a href="{{.Name}}.png">PNG</a> · <a href="{{.Name}}.svg">SVG</a></figcaption>
</figure>
{{end}}</body>
</html>
`))

// utc formats t in UTC to the second.
func utc(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// writeHTML writes index.html to w.
func (r *Report) writeHTML(w io.Writer) error { return page.Execute(w, r) }
