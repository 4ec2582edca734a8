; Sieve of Eratosthenes over an 8192-entry list, run 50 times.
; Returns the number of primes below 8192 (1028).
.list flags 8192

.func sieve params 0 lists 0 locals 3 stack 3 value
.slots i j count
    push 0
    stl i
L_init:
    ldl i
    jgei 8192 L_init_done
    ldl i
    push 1
    ste flags
    incl i
    jmp L_init
L_init_done:
    push 2
    stl i
L_outer:
    ldl i
    ldl i
    mul
    jgei 8192 L_count
    ldl i
    lde flags
    jeqi 0 L_next
    ldl i
    ldl i
    mul
    stl j
L_inner:
    ldl j
    jgei 8192 L_next
    ldl j
    push 0
    ste flags
    ldl j
    ldl i
    add
    stl j
    jmp L_inner
L_next:
    incl i
    jmp L_outer
L_count:
    push 0
    stl count
    push 2
    stl i
L_c:
    ldl i
    jgei 8192 L_done
    ldl i
    lde flags
    jeqi 0 L_skip
    incl count
L_skip:
    incl i
    jmp L_c
L_done:
    ldl count
    retv
.end

.func main params 0 lists 0 locals 2 stack 2 value
.slots k r
L_rep:
    ldl k
    jgei 50 L_end
    call sieve
    stl r
    incl k
    jmp L_rep
L_end:
    ldl r
    retv
.end
