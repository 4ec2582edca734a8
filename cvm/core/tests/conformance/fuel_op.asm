; fuel k charges k units: 2 + 3 = 5 units fit a limit of 5.
;! fuel 5
;! result 1
.func main params 0 lists 0 locals 0 stack 1 value
    fuel 2
    fuel 3
    fuel 0
    push 1
    retv
.end
