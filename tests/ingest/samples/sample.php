<?php

declare(strict_types=1);

namespace App\Billing;

use App\Models\Customer;
use InvalidArgumentException;

interface PaymentGateway
{
    public function charge(Customer $customer, int $cents): string;

    public function refund(string $chargeId): void;
}

trait LogsActivity
{
    protected array $log = [];

    public function record(string $message): void
    {
        $this->log[] = sprintf('[%s] %s', date('c'), $message);
    }
}

enum Currency: string
{
    case Euro = 'EUR';
    case Dollar = 'USD';

    public function symbol(): string
    {
        return match ($this) {
            Currency::Euro => '€',
            Currency::Dollar => '$',
        };
    }
}

abstract class Invoice
{
    public function __construct(
        protected Customer $customer,
        protected int $amount,
        protected Currency $currency = Currency::Euro,
    ) {
        if ($amount < 0) {
            throw new InvalidArgumentException('negative amount');
        }
    }

    abstract public function dueDays(): int;

    public function total(): int
    {
        return $this->amount + $this->tax();
    }

    protected function tax(): int
    {
        return intdiv($this->amount * 21, 100);
    }
}

final class MonthlyInvoice extends Invoice
{
    use LogsActivity;

    public function dueDays(): int
    {
        return 30;
    }

    public static function forCustomer(Customer $customer, int $amount): self
    {
        return new self($customer, $amount);
    }
}

function format_amount(int $cents, Currency $currency): string
{
    return $currency->symbol() . number_format($cents / 100, 2);
}
