// Writes each godip variant as Diplicity's variant service describes it (Properties of a variant
// resource): the variant's plain fields, its start (year, season, type, SCs, units) and its graph, one
// NAME.json per variant in the folder given. The inputs counted in docs/import.md; see there for how to run
// it against a checkout of github.com/zond/godip (GPL-3.0: read, nothing of it is copied here):
//
//	go mod edit -replace github.com/zond/godip=/path/to/godip && GOFLAGS=-mod=mod go run . OUT_DIR
//
// then put each variant's map SVG (godip's variants/NAME/svg/*map.svg) beside its JSON as NAMEmap.svg.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/zond/godip"
	"github.com/zond/godip/variants"
)

type unit struct {
	Type   godip.UnitType
	Nation godip.Nation
}

func main() {
	out := os.Args[1]
	for _, v := range variants.OrderedVariants {
		s, err := v.Start()
		if err != nil {
			fmt.Println(v.Name, "start:", err)
			continue
		}
		raw, _ := json.Marshal(v)
		doc := map[string]interface{}{}
		json.Unmarshal(raw, &doc)
		units := map[godip.Province]unit{}
		for p, u := range s.Units() {
			units[p] = unit{u.Type, u.Nation}
		}
		doc["Start"] = map[string]interface{}{
			"Year":   s.Phase().Year(),
			"Season": s.Phase().Season(),
			"Type":   s.Phase().Type(),
			"SCs":    s.SupplyCenters(),
			"Units":  units,
		}
		doc["Graph"] = s.Graph()
		body, err := json.MarshalIndent(map[string]interface{}{"Name": v.Name, "Properties": doc}, "", " ")
		if err != nil {
			fmt.Println(v.Name, "json:", err)
			continue
		}
		name := strings.ToLower(strings.ReplaceAll(v.Name, " ", ""))
		os.WriteFile(filepath.Join(out, name+".json"), body, 0o644)
		fmt.Println(v.Name, len(body))
	}
}
