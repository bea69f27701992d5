package com.example.inventory

import scala.collection.mutable
import scala.concurrent.{ExecutionContext, Future}

/** Stock keeping unit. */
final case class Sku(value: String) extends AnyVal

sealed trait Event
object Event {
  final case class Received(sku: Sku, quantity: Int) extends Event
  final case class Shipped(sku: Sku, quantity: Int) extends Event
}

enum Warehouse:
  case North, South

  def code: String = this match
    case North => "N"
    case South => "S"

trait Store[F[_]] {
  def get(sku: Sku): F[Int]
  def put(sku: Sku, quantity: Int): F[Unit]
}

class InMemoryStore(implicit ec: ExecutionContext) extends Store[Future] {
  private val levels = mutable.Map.empty[Sku, Int]

  def get(sku: Sku): Future[Int] = Future {
    levels.getOrElse(sku, 0)
  }

  def put(sku: Sku, quantity: Int): Future[Unit] = Future {
    levels.update(sku, quantity)
  }

  override def toString: String = s"InMemoryStore(${levels.size} skus)"
}

abstract class Projection {
  protected var applied: Long = 0L

  def apply(event: Event): Unit

  final def count: Long = applied
}

class Inventory(store: Store[Future])(implicit ec: ExecutionContext) extends Projection {
  def apply(event: Event): Unit = event match {
    case Event.Received(sku, quantity) => adjust(sku, quantity)
    case Event.Shipped(sku, quantity)  => adjust(sku, -quantity)
  }

  private def adjust(sku: Sku, delta: Int): Unit = {
    applied += 1
    store.get(sku).foreach(current => store.put(sku, current + delta))
  }

  val summary: () => String = () => s"$applied events"
}

object Inventory {
  def apply(store: Store[Future])(implicit ec: ExecutionContext): Inventory =
    new Inventory(store)

  type Levels = Map[Sku, Int]
}

extension (sku: Sku)
  def isValid: Boolean = sku.value.nonEmpty

given Ordering[Sku] with
  def compare(a: Sku, b: Sku): Int = a.value.compare(b.value)

def main(args: Array[String]): Unit =
  println(Sku("A-1").isValid)
