using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;

namespace Shop.Orders
{
    public enum OrderStatus
    {
        Pending,
        Paid,
        Shipped,
    }

    public record OrderLine(string Sku, int Quantity, decimal UnitPrice)
    {
        public decimal Total => Quantity * UnitPrice;
    }

    public interface IOrderRepository
    {
        Task<Order?> FindAsync(Guid id);
        Task SaveAsync(Order order);
    }

    public struct Money
    {
        public decimal Amount { get; }
        public string Currency { get; }

        public Money(decimal amount, string currency)
        {
            Amount = amount;
            Currency = currency;
        }

        public override string ToString() => $"{Amount:0.00} {Currency}";

        public static Money operator +(Money left, Money right)
        {
            return new Money(left.Amount + right.Amount, left.Currency);
        }

        public static explicit operator decimal(Money money)
        {
            return money.Amount;
        }
    }

    public class Order
    {
        private readonly List<OrderLine> _lines = new();

        public OrderLine this[int index]
        {
            get { return _lines[index]; }
        }

        ~Order()
        {
            _lines.Clear();
        }

        public Guid Id { get; } = Guid.NewGuid();
        public OrderStatus Status { get; private set; } = OrderStatus.Pending;

        public void Add(OrderLine line)
        {
            if (line.Quantity <= 0)
            {
                throw new ArgumentOutOfRangeException(nameof(line));
            }
            _lines.Add(line);
        }

        public Money Total(string currency) => new(_lines.Sum(l => l.Total), currency);

        public void MarkPaid()
        {
            Status = OrderStatus.Paid;
        }
    }

    public class OrderService
    {
        private readonly IOrderRepository _repository;

        public OrderService(IOrderRepository repository)
        {
            _repository = repository;
        }

        public async Task<Money> PayAsync(Guid id)
        {
            var order = await _repository.FindAsync(id) ?? throw new KeyNotFoundException();
            order.MarkPaid();
            await _repository.SaveAsync(order);
            return order.Total("EUR");
        }
    }
}
