; As inline_enter_fuel, one unit short: the second enter runs out.
;! fuel 2
;! error out-of-fuel at main:L_second
.func main params 0 lists 0 locals 0 stack 0 proc
    enter 1
L_second:
    enter 1
    ret
.end
