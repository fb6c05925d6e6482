module frontiersets

go 1.26.8
