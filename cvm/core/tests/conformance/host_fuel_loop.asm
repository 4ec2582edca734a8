; A counted loop of host calls: HostCall(1, i, 10) answers i and reports
; 10 units. Entry of main (11 instructions): 2; each iteration 1 + 10 for
; the call; each of the 9 taken backward jumps (a span of 9 instructions)
; 2. In all 2 + 10 x 11 + 9 x 2 = 130, exactly the limit; the sum is
; 0 + 1 + ... + 9. (A loop with a host call has no bound on its fuel
; before it runs, so the JIT gives it no fast copy.)
;! fuel 130
;! fuel-used 130
;! result 45
.func main params 0 lists 0 locals 2 stack 5 value
.slots i s
L_loop:
    push 1
    ldl i
    push 10
    push 0
    intr HostCall
    ldl s
    add
    stl s
    inc.jlt.li i 10 L_loop
    ldl s
    retv
.end
