; Sieve of Eratosthenes over an 8192-entry list, run 50 times.
; Returns the number of primes below 8192 (1028).
.list flags 8192
.entry main

.func sieve params 0 lists 0 locals 3 stack 2 value
.slots i j count
L_init:
    push 1
    ste.l flags i
    incl i
    jlt.li i 8192 L_init
    push 2
    stl i
L_outer:
    lde.l flags i
    jeq.i 0 L_next
    ldl i
    mul.l i
    stl j
    jge.li j 8192 L_next
L_inner:
    push 0
    ste.l flags j
    ldl j
    add.l i
    stl j
    jlt.li j 8192 L_inner
L_next:
    incl i
    ldl i
    mul.l i
    jlt.i 8192 L_outer
    push 2
    stl i
L_count:
    lde.l flags i
    jeq.i 0 L_skip
    incl count
L_skip:
    incl i
    jlt.li i 8192 L_count
    ldl count
    retv
.end

.func main params 0 lists 0 locals 2 stack 1 value
.slots k r
L_rep:
    call sieve
    stl r
    incl k
    jlt.li k 50 L_rep
    ldl r
    retv
.end
