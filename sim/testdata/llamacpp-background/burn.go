// burn: a background task that runs on for ON microseconds, then sleeps
// OFF microseconds, until killed; unpinned.
package main

import (
	"os"
	"strconv"
	"time"
)

func main() {
	on, _ := strconv.Atoi(os.Args[1])
	off, _ := strconv.Atoi(os.Args[2])
	x := 0
	for {
		end := time.Now().Add(time.Duration(on) * time.Microsecond)
		for time.Now().Before(end) {
			x++
		}
		time.Sleep(time.Duration(off) * time.Microsecond)
	}
}
