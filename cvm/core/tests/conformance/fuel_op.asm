; fuel k charges k units: the entry's 1 + 2 + 3 = 6 units fit a limit of 6.
;! fuel 6
;! fuel-used 6
;! result 1
.func main params 0 lists 0 locals 0 stack 1 value
    fuel 2
    fuel 3
    fuel 0
    push 1
    retv
.end
