package com.example.orders

import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.map

typealias OrderId = String

/** A line of an order. */
data class OrderLine(val sku: String, val quantity: Int, val unitPrice: Long) {
    val total: Long get() = quantity * unitPrice
}

sealed interface OrderEvent {
    data class Placed(val id: OrderId) : OrderEvent
    data class Cancelled(val id: OrderId, val reason: String) : OrderEvent
}

enum class OrderState {
    NEW,
    PAID,
    SHIPPED;

    fun next(): OrderState = when (this) {
        NEW -> PAID
        PAID -> SHIPPED
        SHIPPED -> SHIPPED
    }
}

interface OrderRepository {
    suspend fun find(id: OrderId): Order?
    suspend fun save(order: Order)
    fun changes(): Flow<OrderEvent>
}

class Order(val id: OrderId, private val lines: MutableList<OrderLine> = mutableListOf()) {
    var state: OrderState = OrderState.NEW
        private set

    fun add(line: OrderLine) {
        require(line.quantity > 0) { "quantity must be positive" }
        lines += line
    }

    fun total(): Long = lines.sumOf { it.total }

    fun advance() {
        state = state.next()
    }

    companion object {
        fun empty(id: OrderId): Order = Order(id)
    }
}

object OrderFormatter {
    fun format(order: Order): String {
        val amount = order.total() / 100.0
        return "${order.id}: %.2f".format(amount)
    }
}

class OrderService(private val repository: OrderRepository) {
    suspend fun place(id: OrderId, lines: List<OrderLine>): Order {
        val order = Order.empty(id)
        lines.forEach(order::add)
        repository.save(order)
        return order
    }

    fun placedIds(): Flow<OrderId> = repository.changes().map { event ->
        when (event) {
            is OrderEvent.Placed -> event.id
            is OrderEvent.Cancelled -> event.id
        }
    }
}

fun Order.isEmpty(): Boolean = total() == 0L

fun main() {
    println(OrderFormatter.format(Order.empty("o-1")))
}
