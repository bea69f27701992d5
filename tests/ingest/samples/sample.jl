"""
    Stats

Running statistics over streams of numbers.
"""
module Stats

using LinearAlgebra: dot
import Base: push!, show

export Running, mean, variance, zscore

abstract type AbstractAccumulator end

"""A running mean and variance (Welford's algorithm)."""
mutable struct Running{T<:Real} <: AbstractAccumulator
    n::Int
    mean::Float64
    m2::Float64
    Running{T}() where {T} = new{T}(0, 0.0, 0.0)
end

struct Summary
    count::Int
    mean::Float64
    std::Float64
end

const DEFAULT_DIGITS = 3

function push!(acc::Running{T}, x::T) where {T<:Real}
    acc.n += 1
    delta = x - acc.mean
    acc.mean += delta / acc.n
    acc.m2 += delta * (x - acc.mean)
    return acc
end

mean(acc::Running) = acc.mean

function variance(acc::Running; corrected::Bool=true)
    acc.n < 2 && return NaN
    return acc.m2 / (acc.n - (corrected ? 1 : 0))
end

zscore(acc::Running, x::Real) = (x - mean(acc)) / sqrt(variance(acc))

function summarize(acc::Running)::Summary
    Summary(acc.n, mean(acc), sqrt(variance(acc)))
end

function show(io::IO, s::Summary)
    print(io, "Summary(n=", s.count, ", mean=", round(s.mean; digits=DEFAULT_DIGITS), ")")
end

macro tally(expr)
    quote
        local acc = Running{Float64}()
        for x in $(esc(expr))
            push!(acc, float(x))
        end
        acc
    end
end

abstract type Shape end

struct Circle <: Shape
    r::Float64
end

area(c::Circle) = pi * c.r^2

function weighted_mean(values::AbstractVector, weights::AbstractVector)
    length(values) == length(weights) || throw(DimensionMismatch("lengths differ"))
    return dot(values, weights) / sum(weights)
end

end # module
