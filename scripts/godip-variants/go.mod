module godipvariants

go 1.19

require github.com/zond/godip v0.0.0

// Point this at a checkout of github.com/zond/godip.
replace github.com/zond/godip => ../../../godip
