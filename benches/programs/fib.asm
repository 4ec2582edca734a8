; Recursive Fibonacci: fib(n) = n < 2 ? n : fib(n-1) + fib(n-2); main computes
; fib(30) = 832040 with 2,692,537 calls. Hand-written with the fused forms
; (jge.li, add.i) as the loophole optimizer would emit them.
.entry main

.func fib params 1 lists 0 locals 0 stack 2 value
.slots n
    jge.li n 2 L_rec
    ldl n
    retv
L_rec:
    ldl n
    add.i -1
    call fib
    ldl n
    add.i -2
    call fib
    add
    retv
.end

.func main params 0 lists 0 locals 0 stack 1 value
    push 30
    call fib
    retv
.end
