// Package report renders reports: report.html and its CSV. Build reads a
// run directory (result.json, verdict.json when there is one, the agents'
// tick records, the CPU files) into a Page, which holds every table and
// every chart's series as plain data; the rendering functions of a Page
// (HTML, CSV) read nothing else, so the data is golden-tested apart from
// its drawing.
package report
